"""The daemon: endpoints, the request path, the worker pool and hosted matches."""
