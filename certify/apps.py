from django.apps import AppConfig


class CertifyConfig(AppConfig):
    name = "certify"
    verbose_name = "Certification and audit"
    default_auto_field = "django.db.models.BigAutoField"
