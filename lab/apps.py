from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    verbose_name = "House-edge lab"
    default_auto_field = "django.db.models.BigAutoField"
