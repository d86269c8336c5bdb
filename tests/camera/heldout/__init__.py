"""A held-out renderer of the overhead camera's pictures, written from CARD_FACES.md alone."""
