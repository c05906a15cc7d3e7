from django.apps import AppConfig


class ResponsibleConfig(AppConfig):
    name = "responsible"
    verbose_name = "Responsible gaming"
    default_auto_field = "django.db.models.BigAutoField"
