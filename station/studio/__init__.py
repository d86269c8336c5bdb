"""The studio: many tables, one settlement on PostgreSQL, the bus on NATS JetStream
(docs/studio.md)."""
