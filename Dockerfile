# Production image: gunicorn for the web; the same image runs the live server (uvicorn), the Celery workers and
# beat (docker-compose.yml). Checked without Docker by tests/ops/test_image.py (the COPY lines give every app in
# INSTALLED_APPS; collectstatic, check --deploy and the apps' imports pass on exactly those files) and hadolint.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONPATH=/app
WORKDIR /app

# 1. The dependencies alone (pyproject.toml's list, every version pinned by constraints.txt): this layer is
#    rebuilt only when one of these two files changes, never for a change of the code.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
      > /tmp/requirements.txt \
 && pip install --no-cache-dir -c constraints.txt -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt \
 && groupadd --system --gid 1000 casino \
 && useradd --system --uid 1000 --gid 1000 --no-create-home casino

# 2. The code: every app of INSTALLED_APPS, the templates, manage.py (run from /app, on PYTHONPATH: not installed).
COPY manage.py ./
COPY casino casino
COPY kit kit
COPY gamemath gamemath
COPY rules rules
COPY tables tables
COPY ledger ledger
COPY responsible responsible
COPY lab lab
COPY accounts accounts
COPY backoffice backoffice
COPY certify certify
COPY devtools devtools
COPY templates templates
COPY locale locale
COPY tools tools
RUN DJANGO_SETTINGS_MODULE=casino.settings SECRET_KEY=build DATABASE_URL=postgres://build@localhost/build \
    REDIS_URL=redis://localhost:6379/0 python manage.py collectstatic --noinput

USER 1000:1000
EXPOSE 8000 8001
HEALTHCHECK --interval=10s --timeout=5s --retries=5 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
CMD ["gunicorn", "casino.wsgi:application", "--config", "python:casino.gunicorn_conf", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "2", "--threads", "32", "--keep-alive", "30"]
