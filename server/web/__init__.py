"""The TD dashboard and the public results pages: server-rendered HTML, live over websockets.

``install(app)`` adds the pages, their static files and the security headers to the server.
"""

from server.web.site import ROUTERS, install

__all__ = ["ROUTERS", "install"]
