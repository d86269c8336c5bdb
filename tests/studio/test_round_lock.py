"""A reservation and the message that closes its round, applied at once by two settlement
processes, are one before the other (docs/studio.md, "Drills": found by the drill of reserving
tables). The reservation's transaction holds the round; the hand waits for it, then finds the
reserved bet its list does not name and releases it. Without the round's lock the hand
commits first, blind to the uncommitted reservation, which then stays in play for a round
already settled."""

from __future__ import annotations

import threading

import pytest

from station.settlement.core import SettlementCore
from station.settlement.sim import plan_session
from tests.waiting import wait_for

pytestmark = pytest.mark.postgres
TABLE = "PD-71"


def test_a_reservation_and_the_hand_closing_its_round_are_one_before_the_other(studio_ledger):
    plan = plan_session(7, 3, table=TABLE, account_prefix=f"{TABLE}.", cancel_rate=0.0)
    hand = next(m for m in plan.messages if m["kind"] == "hand")
    before = plan.messages[:plan.messages.index(hand)]  # the wallets, the round's bets
    bet = next(m for m in before if m["kind"] == "bet")
    # a reservation the table will never accept (its answer came too late): not in the hand
    orphan = dict(bet, key=bet["key"] + ":late0a1b2c3d")
    core = SettlementCore(studio_ledger, pool_size=4)
    try:
        core.apply_batch(before, table=TABLE)
        wallet = core.balances()[bet["account"]]
        reserving, release = threading.Event(), threading.Event()

        def hold(_tx, _answered) -> None:  # the reservation applied, not yet committed
            reserving.set()
            release.wait(30)

        answers: dict[str, object] = {}
        reserver = threading.Thread(target=lambda: answers.setdefault(
            "reservation", core.apply_batch([orphan], table=TABLE, reservation=True, in_tx=hold)))
        reserver.start()
        wait_for(reserving.is_set, 30, "the reservation to be applied, uncommitted")
        closer = threading.Thread(target=lambda: answers.setdefault(
            "hand", core.apply(hand, table=TABLE)))
        closer.start()

        def hand_waits_for_the_round() -> bool:
            with core.store.transaction(read_only=True) as tx:
                return tx.one("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'"
                              " AND NOT granted")[0] > 0

        try:
            wait_for(lambda: hand_waits_for_the_round() or "hand" in answers, 30,
                     "the hand to wait for the round, or to be applied")
            assert "hand" not in answers  # it waited for the reservation's commit
        finally:
            release.set()
            reserver.join(30)
            closer.join(30)
        assert answers["reservation"].refused is None
        assert answers["hand"]["released"] == 1  # the reservation it does not list, given back
        assert core.balances()[bet["account"]] == wallet + sum(
            line["returned"] for line in hand["settlement"] if line["account"] == bet["account"])
        report = core.check(require_closed=True)
        assert report.ok, report.problems
        assert report.figures["bets_released"] == 1
    finally:
        core.close()
