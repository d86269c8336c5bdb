"""What one check found: a verdict, what it saw, and what the engineer should do."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASS, FAIL, UNKNOWN = "pass", "fail", "unknown"


@dataclass
class Finding:
    check: str  # e.g. "shoe", "camera main: scale"
    verdict: str  # pass | fail | unknown (the OS or the device cannot say)
    details: str  # what was seen, in figures
    action: str = ""  # what to do about it (empty when it passes)
    data: dict[str, Any] = field(default_factory=dict)  # the figures, for --json
    accepted: bool = False  # `--accept CHECK`: a known condition the engineer takes on

    @property
    def ok(self) -> bool:
        return self.verdict == PASS or self.accepted

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "verdict": self.verdict, "accepted": self.accepted,
                "details": self.details, "action": self.action, "data": self.data}


def passed(check: str, details: str, **data: Any) -> Finding:
    return Finding(check, PASS, details, "", data)


def failed(check: str, details: str, action: str, **data: Any) -> Finding:
    return Finding(check, FAIL, details, action, data)


def unknown(check: str, details: str, action: str, **data: Any) -> Finding:
    return Finding(check, UNKNOWN, details, action, data)
