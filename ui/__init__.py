"""The Gradio UI (DESIGN §11): `ui.app.build_app(manager)` and `ui.app.launch(settings)`.

The UI talks only to `saiverse.manager.SAIVerseManager`, never to `database/` or `sea/`.
"""
