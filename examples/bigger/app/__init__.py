"""The application's package: `hasten run app.main:app` from examples/bigger."""
