from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        # Connects the signal that revokes a user's API tokens when his password changes.
        from casino import tokens  # noqa: F401
