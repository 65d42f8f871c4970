"""Cookie-session apps written with real frameworks, for CookieSessionTests (Django and Flask from
Scripts/install-test-tools.sh test-frameworks), on one WSGI server of Python's standard library on a
port of the kernel's choosing on 127.0.0.1. Prints "listening at 127.0.0.1:PORT" when it accepts
connections.

  /django/csrf     GET: sets Django's CSRF cookie (csrftoken) and answers {"csrf": true}
  /django/login    POST {"user": NAME} with the CSRF token in X-CSRFToken: signs NAME in (Django's
                   session, in its signed cookie sessionid); 403 without the token
  /django/me       GET: {"user": NAME} for the session's user; 401 without one
  /django/logout   POST with the CSRF token: ends the session
  /flask/login     POST {"user": NAME}: signs NAME in (Flask's session cookie)
  /flask/me        GET: {"user": NAME}; 401 without one
  /flask/logout    POST: clears the session
"""
import json
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="courier-cookie-tests-not-a-secret",
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.sessions"],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
    ],
    SESSION_ENGINE="django.contrib.sessions.backends.signed_cookies",
    SESSION_COOKIE_HTTPONLY=True,
)
django.setup()

from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import ensure_csrf_cookie  # noqa: E402


@ensure_csrf_cookie
def django_csrf(request):
    return JsonResponse({"csrf": True})


def django_login(request):
    if request.method != "POST":
        return JsonResponse({"error": "POST only"}, status=405)
    request.session.cycle_key()
    request.session["user"] = json.loads(request.body or b"{}").get("user", "")
    return JsonResponse({"user": request.session["user"]})


def django_me(request):
    user = request.session.get("user")
    if not user:
        return JsonResponse({"error": "not signed in"}, status=401)
    return JsonResponse({"user": user})


def django_logout(request):
    if request.method != "POST":
        return JsonResponse({"error": "POST only"}, status=405)
    request.session.flush()
    return JsonResponse({"user": None})


urlpatterns = [
    path("django/csrf", django_csrf),
    path("django/login", django_login),
    path("django/me", django_me),
    path("django/logout", django_logout),
]

from flask import Flask, jsonify, request as flask_request, session  # noqa: E402

flask_app = Flask(__name__)
flask_app.secret_key = "courier-cookie-tests-not-a-secret"


@flask_app.post("/flask/login")
def flask_login():
    session.clear()
    session["user"] = (flask_request.get_json(silent=True) or {}).get("user", "")
    return jsonify(user=session["user"])


@flask_app.get("/flask/me")
def flask_me():
    user = session.get("user")
    if not user:
        return jsonify(error="not signed in"), 401
    return jsonify(user=user)


@flask_app.post("/flask/logout")
def flask_logout():
    session.clear()
    return jsonify(user=None)


django_app = get_wsgi_application()


def application(environ, start_response):
    if environ.get("PATH_INFO", "").startswith("/flask/"):
        return flask_app(environ, start_response)
    return django_app(environ, start_response)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *arguments):
        pass


server = make_server("127.0.0.1", 0, application, handler_class=QuietHandler)
print("listening at 127.0.0.1:%d" % server.server_port, flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
