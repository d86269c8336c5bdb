"""How a studio table's reservations fare, for the floor: is the studio ledger answering?

With ``reserve = true`` every bet the table would accept is first reserved in the studio
ledger over the bus (docs/studio.md). When the bus or the ledger does not answer, the policy
is `REFUSE` (the only one this station has): the bet is refused, recorded ``bet_rejected``
with the TRACES.md reason ``insufficient_funds`` (the table could not count on the money),
the journaled ``reservation_answer`` keeps the ledger's ``unavailable``, and the bet API's
answer names it to the player (``"ledger": "unavailable"``). This tracker raises the alarm:
the table's log, its public state (the studio console's banner) and a metric, from the first
unanswered reservation until one is answered again.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from station.metrics import REGISTRY

log = logging.getLogger("station.reservations")

REFUSE = "refuse"
POLICIES = (REFUSE,)
#: answers that say the ledger was not there (every other answer is the ledger's own word)
DOWN_ANSWERS = frozenset({"unavailable"})


class ReservationHealth:
    def __init__(self, table: str, policy: str = REFUSE) -> None:
        if policy not in POLICIES:
            raise ValueError(f"reservation policy {policy!r}: one of {', '.join(POLICIES)}")
        self.table = table
        self.policy = policy
        self.down_since: float | None = None
        self.refused_while_down = 0
        self.answered = 0
        self.last_detail: str | None = None
        self._lock = threading.Lock()
        self._gauge = REGISTRY.gauge("station_reservations_down",
                                     "1 while the studio ledger does not answer the table's"
                                     " reservations (its bets are refused)")
        self._gauge.set(0, table=table)

    def note(self, answer: dict[str, Any]) -> None:
        """The answer to one reservation request."""
        down = answer.get("answer") in DOWN_ANSWERS
        with self._lock:
            if down:
                self.refused_while_down += 1
                self.last_detail = str(answer.get("detail") or "")[:300]
                if self.down_since is None:
                    self.down_since = time.time()
                    self._gauge.set(1, table=self.table)
                    log.error("table %s: the studio ledger does not answer reservations (%s);"
                              " bets are refused until it does", self.table, self.last_detail)
                return
            self.answered += 1
            if self.down_since is not None:
                log.warning("table %s: reservations answered again after %.1f s (%d bets"
                            " refused meanwhile)", self.table, time.time() - self.down_since,
                            self.refused_while_down)
                self.down_since = None
                self.refused_while_down = 0
                self._gauge.set(0, table=self.table)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"policy": self.policy, "down": self.down_since is not None,
                    "down_since": self.down_since, "refused_while_down": self.refused_while_down,
                    "detail": self.last_detail if self.down_since is not None else None}
