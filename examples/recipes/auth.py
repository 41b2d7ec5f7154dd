"""Sign in with a password for a JWT, then send it as a bearer token: FastAPI's
``OAuth2PasswordBearer`` flow, with pyjwt for the tokens and pwdlib (argon2) for the passwords.

    AUTH_SECRET_KEY=$(python -c 'import secrets; print(secrets.token_hex(32))') \\
        hasten run examples.recipes.auth:app
    curl -d username=alice -d password=wonderland http://127.0.0.1:8000/token
    curl -H "Authorization: Bearer <access_token>" http://127.0.0.1:8000/users/me
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Annotated

import jwt
from pwdlib import PasswordHash
from pydantic import BaseModel, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from hasten import Depends, FastAPI, HTTPException, OAuth2PasswordBearer, OAuth2PasswordRequestForm

ALGORITHM = "HS256"


class AuthSettings(BaseSettings):
    """The signing key is required: every worker, and every restart, must share it."""

    model_config = SettingsConfigDict(env_prefix="AUTH_")

    secret_key: SecretStr
    token_minutes: int = 30


@lru_cache
def get_settings() -> AuthSettings:
    return AuthSettings()  # type: ignore[call-arg]  # secret_key comes from the environment


class User(BaseModel):
    username: str
    full_name: str
    disabled: bool = False


class Token(BaseModel):
    access_token: str
    token_type: str = "bearer"


passwords = PasswordHash.recommended()  # argon2id
# A stand-in for a users table: the username, the user, and the hash of the password.
ALICE = User(username="alice", full_name="Alice Liddell")
USERS = {"alice": (ALICE, passwords.hash("wonderland"))}
# Checked when the name is unknown, so that a wrong name costs as long as a wrong password.
UNKNOWN = passwords.hash("no such user")

oauth2 = OAuth2PasswordBearer(tokenUrl="token")
app = FastAPI(title="JWT auth")


@app.post("/token")
def sign_in(
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    settings: Annotated[AuthSettings, Depends(get_settings)],
) -> Token:
    """A plain def: argon2 takes tens of milliseconds of CPU, on the thread pool, not the loop."""
    user, hashed = USERS.get(form.username, (None, UNKNOWN))
    if not passwords.verify(form.password, hashed) or user is None or user.disabled:
        raise HTTPException(
            status_code=401,
            detail="Incorrect username or password",
            headers={"WWW-Authenticate": "Bearer"},
        )
    expires = datetime.now(UTC) + timedelta(minutes=settings.token_minutes)
    claims = {"sub": user.username, "exp": expires}
    return Token(access_token=jwt.encode(claims, settings.secret_key.get_secret_value(), ALGORITHM))


async def current_user(
    token: Annotated[str, Depends(oauth2)],
    settings: Annotated[AuthSettings, Depends(get_settings)],
) -> User:
    try:
        claims = jwt.decode(token, settings.secret_key.get_secret_value(), [ALGORITHM])
    except jwt.InvalidTokenError:  # a bad signature, an expired token, garbage
        claims = {}
    found = USERS.get(claims.get("sub", ""))
    if found is None or found[0].disabled:
        raise HTTPException(
            status_code=401,
            detail="Could not validate credentials",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return found[0]


@app.get("/users/me")
async def me(user: Annotated[User, Depends(current_user)]) -> User:
    return user
