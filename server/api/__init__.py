"""The HTTP and websocket API: thin routers over the services."""
