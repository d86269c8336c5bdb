"""`station dispute`: one round's evidence pack, from the journal, the ledger, the console's
audit log and the kept camera frames (docs/operator.md, "Answering a dispute")."""
