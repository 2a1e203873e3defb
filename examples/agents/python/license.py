"""License exchange for protected videos (a mixin of Engine), against the license API
the catalog entry names in `key_systems`: `GET certificate_url`, then `POST
license_url` with `{"asset_id", "key_id", "nonce", "terms"}`; the answer is a license
`{"asset_id", "key_id", "nonce", "kind", "content_key", "issued_at", "expires_at"?, …}`.
A refusal is `{"code", "message"}`; `app_in_background` (HTTP 403) means "come back in
the foreground". Exchanges happen in the foreground only.
"""

import base64
import json
import uuid
from urllib.parse import urljoin

import transport
from download import Refused
from protocol import FAR_FUTURE, rfc3339
from transport import Aborted, NetworkError, StatusError


class Licensing:
    """The license half of Engine."""

    def _acquire_license(self, d, attempt):
        """Certificate, then license (POST), in the foreground only; the license is stored
        in the index before it is claimed."""
        with self.cond:
            if not self._may_exchange_license():
                raise Aborted()  # the loop waits in suspended(awaitingForeground)
            d.licensing = True
        try:
            system, on_bytes = d.key_system, self._on_bytes(d, attempt)
            base = d.request["catalogURL"]
            asset, _, key_id = system["key_uri"][len("skd://"):].partition("/")
            transport.fetch_bytes(attempt, urljoin(base, system["certificate_url"]), on_bytes)
            self._go_on(d, attempt)
            with self.cond:
                # Sent to the background while the certificate was on its way: no license
                # request in the background; the loop takes the exchange up in the foreground.
                if not self._may_exchange_license():
                    raise Aborted()
            rental = d.request.get("rentalSeconds")
            terms = {"kind": "rental", "rental_duration_seconds": rental} if rental else {"kind": "purchase"}
            nonce = str(uuid.uuid4())
            body = json.dumps({"asset_id": asset, "key_id": key_id, "nonce": nonce, "terms": terms}).encode()
            try:
                answer = transport.fetch_bytes(attempt, urljoin(base, system["license_url"]), on_bytes, "POST", body)
            except StatusError as error:
                refusal = _json(error.body)
                if refusal.get("code") == "app_in_background":
                    raise NetworkError("the license server refuses in the background") from error
                self.wire.event("licenseFailed", download=d.token, reason=refusal.get("message", str(error)))
                raise Refused(f"license refused ({refusal.get('code', error.status)})") from error
            license = _json(answer)
            if (license.get("asset_id"), license.get("key_id"), license.get("nonce")) != (asset, key_id, nonce):
                raise Refused("the license answers another request")
            if len(base64.b64decode(license.get("content_key", ""))) != 16:
                raise Refused("the license carries no 16-byte content key")
            with self.cond:
                self.store.save_license(d.token, license)
                d.license = license
                expires = license.get("expires_at")
                self.wire.event("licenseAcquired", download=d.token,
                                expiration=rfc3339(expires) if expires else FAR_FUTURE)
        finally:
            with self.cond:
                d.licensing = False
                self.cond.notify_all()


def _json(data):
    try:
        value = json.loads(data or b"{}")
        return value if isinstance(value, dict) else {}
    except ValueError:
        return {}
