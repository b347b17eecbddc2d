"""Qt painters without widgets or app state, shared by the app's canvases and the exported reports."""
