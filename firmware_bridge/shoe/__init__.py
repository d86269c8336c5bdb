"""The card shoe: the DS link protocol (spec SHOE_PROTOCOL.md), its driver and a simulator."""
