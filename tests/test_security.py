"""Security schemes through both adapters: the 401 they answer, and a subclass's own."""

from __future__ import annotations

from hasten import App, Depends, HTTPException
from hasten.security import HTTPAuthorizationCredentials, HTTPBasic, HTTPBearer
from tests.conftest import ClientFactory


class HTTPBearer403(HTTPBearer):
    def make_not_authenticated_error(self) -> HTTPException:
        return HTTPException(status_code=403, detail="Not authenticated")


def bearer_app(scheme: HTTPBearer) -> App:
    app = App()

    @app.get("/me")
    def read_me(credentials: HTTPAuthorizationCredentials = Depends(scheme)) -> dict[str, str]:
        return {"token": credentials.credentials}

    return app


def test_missing_credentials_are_a_401_with_the_schemes_challenge(serve: ClientFactory) -> None:
    client = serve(bearer_app(HTTPBearer()))
    response = client.get("/me")
    assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
    assert response.headers["www-authenticate"] == "Bearer"
    response = client.get("/me", headers={"Authorization": "Bearer secret"})
    assert (response.status_code, response.json()) == (200, {"token": "secret"})
    assert HTTPBasic(realm="api").make_authenticate_headers() == {
        "WWW-Authenticate": 'Basic realm="api"'
    }


def test_a_scheme_may_answer_its_own_error(serve: ClientFactory) -> None:
    response = serve(bearer_app(HTTPBearer403())).get("/me")
    assert (response.status_code, response.json()) == (403, {"detail": "Not authenticated"})
    assert "www-authenticate" not in response.headers
