"""The Qt desktop application: windows, canvases and docks that draw core results."""
