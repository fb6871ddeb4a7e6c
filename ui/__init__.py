"""The Gradio UI (docs/ARCHITECTURE.md, "UI"): `ui.app.build_app(manager)` and `ui.serve.launch(settings)`.

The UI talks only to `saiverse.manager.SAIVerseManager`, never to `database/` or `sea/`.
"""
