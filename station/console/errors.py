"""The one error the console's API answers with: a status and a sentence saying why."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """Answered as `{"error": message, **extra}` with `status` (always a 4xx or a 503)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra
