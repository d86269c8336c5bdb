"""The table core: the house procedure as one deterministic state machine.

Inputs (shoe bytes, camera observations, dealer and supervisor actions, wallets, bets, the
clock) go in with their times; output records and device commands come out. Live running and
trace replay are the same core with a different clock and different sources.
"""
