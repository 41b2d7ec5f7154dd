"""What several routers depend on."""

from typing import Annotated

from hasten import Header, HTTPException

# Stand-ins for a real check of a token (a database, a JWT: see the JWT auth recipe).
TOKENS = {"reader-token": "reader", "admin-token": "admin"}


async def require_token(x_token: Annotated[str, Header()]) -> str:
    """The role of the X-Token header's token; 401 for a token nobody was given."""
    if x_token not in TOKENS:
        raise HTTPException(status_code=401, detail="Unknown token")
    return TOKENS[x_token]


async def require_admin(x_token: Annotated[str, Header()]) -> None:
    if TOKENS.get(x_token) != "admin":
        raise HTTPException(status_code=403, detail="Admins only")
