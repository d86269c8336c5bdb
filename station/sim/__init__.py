"""Simulated studio: scripted sessions, the scripted dealer, simulated bettors."""
