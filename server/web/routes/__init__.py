"""The web routers: TD pages (login required) and public results pages."""
