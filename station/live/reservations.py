"""How a studio table's reservations fare, for the floor: is the studio ledger answering?

With ``reserve = true`` every bet the table would accept is first reserved in the studio
ledger over the bus (docs/studio.md). When the bus or the ledger does not answer, the policy
is `REFUSE` (the only one this station has): the bet is refused, recorded ``bet_rejected``
with the TRACES.md reason ``insufficient_funds`` (the table could not count on the money),
the journaled ``reservation_answer`` keeps the ledger's ``unavailable``, and the bet API's
answer names it to the player (``"ledger": "unavailable"``). With `CREDIT` the bet is taken
on the table's credit within a limit per account (answered ``"ledger": "credit"``; over the
limit it is refused as with `REFUSE`). This tracker raises the alarm: the table's log, its
public state (the studio console's banner, with what is on credit) and metrics, from the first
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
#: take bets while the ledger is away, each account up to `reserve_credit_limit` (minor units)
#: on the table's credit since the ledger last answered; the journal keeps the answer
#: `credit`, the bet's outbox message says `credit`, and when the bus is back the ledger
#: books it (what the wallet cannot cover as credit from the table's cashier, in its result)
CREDIT = "credit"
POLICIES = (REFUSE, CREDIT)
#: answers that say the ledger was not there (every other answer is the ledger's own word)
DOWN_ANSWERS = frozenset({"unavailable", CREDIT})


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
        #: bets taken on the table's credit since the ledger last answered: count and sum
        self.on_credit_bets = 0
        self.on_credit_minor = 0
        self._lock = threading.Lock()
        self._gauge = REGISTRY.gauge("station_reservations_down",
                                     "1 while the studio ledger does not answer the table's"
                                     " reservations (its bets are refused)")
        self._gauge.set(0, table=table)
        self._credit = REGISTRY.gauge("station_reservations_on_credit_minor",
                                      "what the table took on its own credit while the studio"
                                      " ledger did not answer (minor units)")
        self._credit.set(0, table=table)

    def note(self, answer: dict[str, Any]) -> None:
        """The answer to one reservation request."""
        down = answer.get("answer") in DOWN_ANSWERS
        with self._lock:
            if down:
                if answer.get("answer") == CREDIT:
                    self.on_credit_bets += 1
                    self.on_credit_minor += int(answer.get("amount") or 0)
                    self._credit.set(self.on_credit_minor, table=self.table)
                else:
                    self.refused_while_down += 1
                self.last_detail = str(answer.get("detail") or "")[:300]
                if self.down_since is None:
                    self.down_since = time.time()
                    self._gauge.set(1, table=self.table)
                    log.error("table %s: the studio ledger does not answer reservations (%s);"
                              " bets are %s until it does", self.table, self.last_detail,
                              "taken on the table's credit within its limit"
                              if self.policy == CREDIT else "refused")
                return
            self.answered += 1
            if self.down_since is not None:
                log.warning("table %s: reservations answered again after %.1f s (%d bets"
                            " refused, %d taken on credit for %d meanwhile; those go to the"
                            " ledger through the outbox)", self.table,
                            time.time() - self.down_since, self.refused_while_down,
                            self.on_credit_bets, self.on_credit_minor)
                self.down_since = None
                self.refused_while_down = 0
                self.on_credit_bets = self.on_credit_minor = 0
                self._gauge.set(0, table=self.table)
                self._credit.set(0, table=self.table)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"policy": self.policy, "down": self.down_since is not None,
                    "down_since": self.down_since, "refused_while_down": self.refused_while_down,
                    "on_credit_bets": self.on_credit_bets, "on_credit": self.on_credit_minor,
                    "detail": self.last_detail if self.down_since is not None else None}
