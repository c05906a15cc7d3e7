"""``POST /auth/register`` and ``POST /auth/token``: anonymous, throttled per IP."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, logout, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.errors import InvalidField
from accounts.login_lockout import remember_sign_in
from accounts.services import USERNAME_RULE, check_username, player_register
from kit.api_errors import error_response
from kit.idempotency import idempotent
from kit.schema import api_errors
from kit.serializers import StrictCharField, StrictSerializer
from kit.throttling import AUTH_THROTTLES
from kit.tokens import issue_token, revoke_token
from responsible.services import refuse_if_excluded

PASSWORD_MAX_LENGTH = 128


class RegistrationOpen(BasePermission):
    """``settings.REGISTRATION_OPEN`` (env ``REGISTRATION_OPEN``, default on); closed is 403 ``forbidden``."""

    message = "Registration is closed."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(getattr(settings, "REGISTRATION_OPEN", True))


class RegisterView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [RegistrationOpen]
    throttle_classes = AUTH_THROTTLES

    class InputSerializer(StrictSerializer):
        username = StrictCharField(max_length=30, help_text=USERNAME_RULE)
        password = StrictCharField(max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True)

        class Meta:
            ref_name = "RegisterRequest"

        def validate_username(self, value: str) -> str:
            try:
                return check_username(value)
            except InvalidField as exc:  # said in the caller's language (the player client shows it under the form)
                raise serializers.ValidationError(
                    gettext(
                        "A username has 3-30 characters: letters, digits, '.', '_' and '-', starting with a letter "
                        "or a digit."
                    )
                ) from exc

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            candidate = get_user_model()(username=attrs["username"])
            try:
                password_validation.validate_password(attrs["password"], user=candidate)
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"password": list(exc.messages)}) from exc
            return attrs

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        token = serializers.CharField()

        class Meta:
            ref_name = "RegisterResponse"

    @extend_schema(
        operation_id="auth_register",
        summary="Register a player",
        description=(
            "Creates a player and returns an API token (`Authorization: Token <token>`). A username taken in "
            "any letter case, a username breaking the rules or a password failing the password rules is 400 "
            "`invalid_request` naming the field. 403 `forbidden` when registration is closed. The "
            "Idempotency-Key header is checked but not stored (anonymous request): a repeat gets 400 "
            "`invalid_request` (username taken) and the client then asks `/auth/token`."
        ),
        request=InputSerializer,
        responses={201: OutputSerializer},
        auth=[],
    )
    @api_errors("forbidden")
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, token = player_register(**serializer.validated_data)
        remember_sign_in(request._request, user.get_username())  # the address he registered from is his
        out = self.OutputSerializer({"id": user.pk, "username": user.get_username(), "token": token})
        return Response(out.data, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    throttle_classes = AUTH_THROTTLES

    class InputSerializer(StrictSerializer):
        username = StrictCharField(max_length=150)
        password = StrictCharField(max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True)

        class Meta:
            ref_name = "TokenRequest"

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

        class Meta:
            ref_name = "TokenResponse"

    @extend_schema(
        operation_id="auth_token",
        summary="Get the API token of a user",
        description=(
            "Issues a new API token for the user (`Authorization: Token <token>`), valid for 24 hours by "
            "default (setting `API_TOKEN_TTL_S`); earlier tokens stay valid until they expire, are revoked by "
            "`POST /auth/logout` or by a password change. Wrong credentials, or an inactive user, are 400 "
            "`invalid_request` (DRF's convention for obtaining a token)."
        ),
        request=InputSerializer,
        responses={200: OutputSerializer},
        auth=[],
    )
    @api_errors("excluded")
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(request._request, **serializer.validated_data)
        if user is None:
            # Answered, not raised: the error handler would roll back the failure django-axes just recorded
            # (accounts/login_lockout.py), and repeated guesses would never lock.
            refused = error_response(serializers.ValidationError("Unable to log in with the provided credentials."))
            assert refused is not None
            return refused
        refuse_if_excluded(user)  # 403 excluded (details.until) during a break or a self-exclusion
        # a success clears the failures of its own account and address pair only, and makes the address known
        # to the account: strangers' failures never lock it out from here (accounts/login_lockout.py)
        remember_sign_in(request._request, user.get_username())
        return Response(self.OutputSerializer({"token": issue_token(user)}).data)


class LogoutView(APIView):
    """``POST /auth/logout``: the token used is revoked at once (a session is ended)."""

    class InputSerializer(StrictSerializer):
        """No fields: an empty body or ``{}``."""

        class Meta:
            ref_name = "LogoutRequest"

    @extend_schema(
        operation_id="auth_logout",
        summary="Revoke the token used",
        description=(
            "Revokes the token that authenticated this request, at once: it is 401 `not_authenticated` "
            "afterwards. Other tokens of the user stay valid. Signed in by session (the browsable API), "
            "the session ends."
        ),
        request=InputSerializer,
        responses={204: None},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        self.InputSerializer(data=request.data or {}).is_valid(raise_exception=True)
        if isinstance(request.auth, AuthToken):
            revoke_token(request.auth)
        else:
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
