# Production image: gunicorn for the web; the same image runs the live server (uvicorn), the Celery worker and beat.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY pyproject.toml constraints.txt ./
COPY casino casino
COPY tables tables
COPY ledger ledger
COPY templates templates
COPY manage.py ./
RUN pip install --no-cache-dir -c constraints.txt . \
 && useradd --system --uid 1000 casino \
 && DJANGO_SETTINGS_MODULE=casino.settings SECRET_KEY=build DATABASE_URL=postgres://build@localhost/build \
    REDIS_URL=redis://localhost:6379/0 python manage.py collectstatic --noinput
USER casino
EXPOSE 8000 8001
CMD ["gunicorn", "casino.wsgi:application", "--config", "python:casino.gunicorn_conf", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "2", "--threads", "32", "--keep-alive", "30"]
