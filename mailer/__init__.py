"""Feuilles de route by e-mail: intake, receipts, results and reminders."""
