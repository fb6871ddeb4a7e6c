"""What tests and benchmarks share (benchmarks import these, never a `tests/test_*.py` module).

Parts: `models` (ScriptedModel, the `make_manager` type), `browser` (Chromium driving the real app), `pg`
(a throwaway PostgreSQL cluster), `processes` (starting and stopping the app's processes), `threads`,
`compat` (upstream homes for the import tests), `upstream_home` and `upstream_small` / `upstream_rough*` /
`upstream_v03` (writing an upstream SAIVerse home), `fakes_llm` / `fakes_hub` / `fakes_ports` /
`fakes_listen` (loopback fakes speaking the real wire formats; `fakes_listen` also makes recordings with
sox), `ltm_helpers` (long-term memory rows), `mcp_server` (a FastMCP server) and `mcp_entries` (its
settings.json entry), `model_pull` (the fake hub serving the packaged GGUF; its fixtures registered in
tests/conftest.py), `model_servers` (model-server addresses), `local_line` (LocalModel answering one fixed
line), `embedder` (a deterministic concept embedder), `production_runs` (an interrupted production run),
`served` (the real app on a loopback port), `home_snapshot` (a home's rows and files, to compare),
`backends` (the reliability campaigns' stores, the `store` fixture), `worker_city` (a PostgreSQL city with
worker subprocesses, the `city` fixture) and the child-process scripts the campaigns run: `killat`,
`pulser`, `workload`, `home_user`.
Import the part: `from tests.support.browser import chromium`.
"""
