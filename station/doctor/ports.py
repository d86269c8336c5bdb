"""The console's and the bet API's ports: free for the station to listen on."""

from __future__ import annotations

import socket

from station.doctor.result import Finding, failed, passed


def check_port(name: str, section: str, host: str, port: int) -> Finding:
    if port == 0:
        return passed(f"{name} port", f"{host}:0: the OS picks a free port at start", host=host, port=port)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # as uvicorn binds: a port another process listens on is refused, one in TIME_WAIT is not
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            return failed(f"{name} port", f"cannot listen on {host}:{port}: {e.strerror or e}",
                          f"stop what listens there (`ss -ltnp 'sport = :{port}'`: another station "
                          f"still running?) or set [{section}] port to a free one", host=host, port=port)
    return passed(f"{name} port", f"{host}:{port} is free", host=host, port=port)
