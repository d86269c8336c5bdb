"""The floor supervisor's console: live tables, alerts, decisions, bead roads and recall.

    app = make_console_app({"T-01": station}, users=UserStore("var/users.sqlite"), secret=...)
    server, thread, url = serve_console(app, "127.0.0.1", 8080)
"""

from station.console.app import make_console_app, serve_console, stop_console
from station.console.users import ROLES, UserStore
from station.metrics import REGISTRY

__all__ = ["REGISTRY", "ROLES", "UserStore", "make_console_app", "serve_console", "stop_console"]
