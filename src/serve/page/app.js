// Placeholder: the page branch brings the real app.
