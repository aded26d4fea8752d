"""The competition server: Flask app, database, scheduler and pages."""
