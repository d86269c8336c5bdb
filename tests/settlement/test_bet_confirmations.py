"""A reserved bet its table accepted is told apart from one it never knew (station/settlement/
ledger/confirmations.py): the bet message coming back through the outbox confirms it, a hand
releases only unconfirmed reservations, and a confirmed bet the hand does not list is a
mismatch on record, never quietly released. On a real SQLite ledger file."""

from __future__ import annotations

from station.settlement.core import SettlementCore
from station.settlement.sim import plan_session

TABLE = "PD-72"


def _ledger(path, seed: int, *, held_back: int = 0) -> tuple[SettlementCore, list[dict], dict]:
    """A ledger file holding a round's wallets and its bets but the last `held_back`: the
    core, every bet of the round and the hand that closes it."""
    plan = plan_session(seed, 3, table=TABLE, account_prefix=f"{TABLE}.", cancel_rate=0.0)
    hand = next(m for m in plan.messages if m["kind"] == "hand")
    before = plan.messages[:plan.messages.index(hand)]  # the wallets and the round's bets
    bets = [m for m in before if m["kind"] == "bet"]
    core = SettlementCore(path)
    try:
        core.apply_batch([m for m in before if m["kind"] != "bet"], table=TABLE)
        core.apply_batch(bets[:len(bets) - held_back], table=TABLE)
    except BaseException:
        core.close()
        raise
    return core, bets, hand


def _reserve(core: SettlementCore, bet: dict) -> None:
    """The table's bet intake reserves `bet` in the ledger, and the ledger takes it."""
    assert core.apply_batch([bet], table=TABLE, reservation=True).refused is None


def _top_up(core: SettlementCore, bet: dict) -> None:
    """Give the bet's player enough for one more of the same bet."""
    account = bet["account"]
    core.apply({"key": f"wallet:top-up:{bet['key']}", "kind": "wallet", "account": account,
                "balance": core.balances().get(account, 0) + bet["deducted"]}, table=TABLE)


def _outcomes(core: SettlementCore) -> dict[str, str]:
    with core.store.transaction() as tx:
        return {k: o for k, o in tx.execute(
            "SELECT b.key, c.outcome FROM bets b JOIN bet_closures c ON c.bet_id = b.id"
            " WHERE b.table_id = ?", (TABLE,))}


def test_of_two_bets_alike_the_one_the_table_sent_back_is_settled(tmp_path) -> None:
    # the ledger reserved the same line twice under two keys: one answer never reached the
    # journal (the orphan), the other did and the table accepted that bet. Both orders of the
    # two in the ledger are tried: a rule by position alone gets one of them wrong
    for orphan_first in (True, False):
        core, bets, hand = _ledger(tmp_path / f"ledger-{orphan_first}.sqlite", 7, held_back=1)
        try:
            last = bets[-1]
            orphan = dict(last, key=last["key"] + ":lost")
            _top_up(core, last)
            order = [orphan, last] if orphan_first else [last, orphan]
            for m in order:
                _reserve(core, m)
            core.apply(last, table=TABLE)  # the outbox brings the accepted one again
            result = core.apply(hand, table=TABLE)
            assert result["released"] == 1
            outcome = _outcomes(core)
            assert (outcome[orphan["key"]], outcome[last["key"]]) == ("released", "settled")
            report = core.check(require_closed=True)
            assert report.ok, report.problems
        finally:
            core.close()


def test_a_confirmed_bet_the_hand_does_not_list_is_refused_not_released(tmp_path) -> None:
    core, bets, hand = _ledger(tmp_path / "ledger.sqlite", 11)
    try:
        extra = dict(bets[0], key=bets[0]["key"] + ":accepted")
        _top_up(core, extra)
        _reserve(core, extra)
        core.apply(extra, table=TABLE)  # accepted by the table: its outbox sent it
        outcome = core.apply_batch([hand], table=TABLE)
        assert outcome.refused is not None and outcome.refused.reason == "bet_mismatch", \
            outcome.refused
        assert [r["key"] for r in core.refusals(table=TABLE)] == [hand["key"]]
        assert _outcomes(core) == {}  # the round stays open for the supervisor
    finally:
        core.close()


def test_the_books_check_names_a_confirmed_bet_that_was_released(tmp_path) -> None:
    """A ledger closed by older code may hold such a record: `ledger check` says so."""
    core, bets, hand = _ledger(tmp_path / "ledger.sqlite", 13)
    try:
        orphan = dict(bets[0], key=bets[0]["key"] + ":lost")
        _top_up(core, orphan)
        _reserve(core, orphan)
        assert core.apply(hand, table=TABLE)["released"] == 1
        assert core.check(require_closed=True).ok
        with core.store.transaction() as tx:  # as if the outbox had sent the orphan back
            tx.execute("INSERT INTO bet_confirmations (bet_id) SELECT id FROM bets"
                       " WHERE table_id = ? AND key = ?", (TABLE, orphan["key"]))
        report = core.check(require_closed=True)
        assert not report.ok
        assert any(orphan["key"] in p and "released" in p for p in report.problems), report.problems
    finally:
        core.close()


def _cancel(hand: dict, bets: list[dict]) -> dict:
    """The table's cancellation of the hand's round, listing its own bets as refunds (as a
    table core sends it: station/games/house_round.py)."""
    return {"key": f"cancel:{hand['round_id']}", "kind": "round_cancelled",
            "round_id": hand["round_id"], "reason": "table_closed",
            "refunds": [{"account": b["account"], "spot": b["spot"], "amount": b["amount"],
                         "deducted": b["deducted"], "returned": b["deducted"]} for b in bets]}


def test_a_cancelled_round_releases_the_reservations_its_table_never_accepted(tmp_path) -> None:
    core, bets, hand = _ledger(tmp_path / "ledger.sqlite", 17, held_back=1)
    try:
        last = bets[-1]
        orphan = dict(last, key=last["key"] + ":lost")
        _top_up(core, last)
        for m in (orphan, last):  # both reserved; only `last` accepted by the table
            _reserve(core, m)
        core.apply(last, table=TABLE)
        wallets = core.balances()
        result = core.apply(_cancel(hand, bets), table=TABLE)
        assert result["status"] == "cancelled" and result["released"] == 1
        outcome = _outcomes(core)
        assert outcome[orphan["key"]] == "released"
        assert all(outcome[b["key"]] == "refunded" for b in bets)
        # every deduction back in its wallet, the orphan's too
        back = {}
        for b in [*bets, orphan]:
            back[b["account"]] = back.get(b["account"], 0) + b["deducted"]
        assert core.balances() == {a: wallets[a] + back.get(a, 0) for a in wallets}
        report = core.check(require_closed=True)
        assert report.ok, report.problems
    finally:
        core.close()


def test_a_cancellation_that_leaves_out_an_accepted_bet_is_refused(tmp_path) -> None:
    core, bets, hand = _ledger(tmp_path / "ledger.sqlite", 19)
    try:
        extra = dict(bets[0], key=bets[0]["key"] + ":accepted")
        _top_up(core, extra)
        _reserve(core, extra)
        core.apply(extra, table=TABLE)
        outcome = core.apply_batch([_cancel(hand, bets)], table=TABLE)
        assert outcome.refused is not None and outcome.refused.reason == "bet_mismatch"
        assert _outcomes(core) == {}
    finally:
        core.close()
