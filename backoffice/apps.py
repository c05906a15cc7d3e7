from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    """The operators' back office. Its app label is ``casino``: its tables are ``casino_*``, its permissions
    ``casino.*`` (``casino.use_cashier``), its migrations ``casino.00NN``."""

    name = "backoffice"
    label = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        # Connects the signal that revokes a user's API tokens when his password changes.
        from backoffice import monitoring

        monitoring.connect()
