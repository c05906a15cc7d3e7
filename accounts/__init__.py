"""The player's account over the API (spec/API.md): registration and sign-in, the profile and client seed
(``/me``), the cashier's endpoints and the responsible-gaming endpoints; the game's endpoints are the game app's
(``tables.api``), all under ``/api/v1/`` (``accounts.urls``)."""
