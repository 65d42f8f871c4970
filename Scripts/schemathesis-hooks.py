# schemathesis hooks for ServerDocumentFuzzTests (SCHEMATHESIS_HOOKS): request bodies for the
# media types of the sample server's resumable uploads, which schemathesis cannot generate by
# itself (tus's application/offset+octet-stream, the IETF draft's application/partial-upload):
# raw bytes.
from hypothesis import strategies as st
import schemathesis

for media_type in ("application/offset+octet-stream", "application/partial-upload"):
    schemathesis.openapi.media_type(media_type, st.binary(max_size=4096))
