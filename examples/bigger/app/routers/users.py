"""/users: who uses the shop."""

from hasten import APIRouter, HTTPException

router = APIRouter(prefix="/users", tags=["users"])  # Router(...): the same class

USERS = {"ada": "Ada Lovelace", "grace": "Grace Hopper"}


@router.get("/")
async def list_users() -> list[str]:
    return sorted(USERS)


@router.get("/{username}")
async def read_user(username: str) -> dict[str, str]:
    if username not in USERS:
        raise HTTPException(status_code=404, detail="No such user")
    return {"username": username, "name": USERS[username]}
