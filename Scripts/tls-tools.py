"""TLS material and a TLS server for the TLS tests (Tests/CourierTests/TLSTrustTests.swift).

Runs in the test-servers environment of Scripts/install-test-tools.sh (cryptography from PyPI);
the tests start it, nobody needs to run it by hand.

    python tls-tools.py fixtures DIRECTORY PASSWORD
        Writes a test CA and certificates into DIRECTORY:
          ca.pem, ca.key, ca.spki                    the CA (EC P-256), "Courier Test CA"
          NAME.pem, NAME.key, NAME.spki              leaves the CA signed, for NAME in
                                                     good (localhost, EC), rsa (localhost, RSA 2048),
                                                     wronghost (wrong.example), expired (2020-2021),
                                                     client (a client certificate, courier-client)
          client.p12, client-encrypted.key           the client's identity as PKCS#12 and as an
                                                     encrypted PKCS#8 key, both under PASSWORD
          stranger.pem, stranger.key                 a self-signed client certificate no CA signed
        Keys are PKCS#8 PEM; NAME.spki is the DER SubjectPublicKeyInfo of NAME's key.

    python tls-tools.py serve PORT CERTIFICATE KEY CA
        Serves HTTPS on 127.0.0.1:PORT (0: any free port) with Python's ssl module (OpenSSL), and
        requires a client certificate that CA signed in the handshake: without one the handshake
        fails (the server's TLS alert), with one each request gets "client: SUBJECT". Prints
        "listening at 127.0.0.1:PORT" when it accepts connections.
"""

import datetime
import ipaddress
import socket
import ssl
import sys
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def utc(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)


def write(path, data):
    with open(path, "wb") as file:
        file.write(data)


def save_key(directory, name, key):
    write(f"{directory}/{name}.key", key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    write(f"{directory}/{name}.spki", key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))


def fixtures(directory, password):
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Courier Test CA")])
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = (x509.CertificateBuilder()
          .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=3650))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(
              digital_signature=False, content_commitment=False, key_encipherment=False, data_encipherment=False,
              key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(ca_ski, critical=False)
          .sign(ca_key, hashes.SHA256()))
    write(f"{directory}/ca.pem", ca.public_bytes(serialization.Encoding.PEM))
    save_key(directory, "ca", ca_key)

    localhost = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    server, client = ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH
    leaves = [  # name, subject, alternative names, usage, key, validity
        ("good", "localhost", localhost, server, "ec", ("2024-01-01", "2099-12-31")),
        ("rsa", "localhost", localhost, server, "rsa", ("2024-01-01", "2099-12-31")),
        ("wronghost", "wrong.example", [x509.DNSName("wrong.example")], server, "ec", ("2024-01-01", "2099-12-31")),
        ("expired", "localhost", localhost, server, "ec", ("2020-01-01", "2021-01-01")),
        ("client", "courier-client", [x509.DNSName("courier-client")], client, "ec", ("2024-01-01", "2099-12-31")),
    ]
    keys, certificates = {}, {}
    for serial, (name, subject, names, usage, kind, (start, end)) in enumerate(leaves, start=0x1000):
        key = ec.generate_private_key(ec.SECP256R1()) if kind == "ec" else rsa.generate_private_key(65537, 2048)
        certificate = (x509.CertificateBuilder()
                       .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                       .issuer_name(ca_name).public_key(key.public_key()).serial_number(serial)
                       .not_valid_before(utc(start)).not_valid_after(utc(end))
                       .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=False)
                       .add_extension(x509.SubjectAlternativeName(names), critical=False)
                       .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                       .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                       .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
                       .sign(ca_key, hashes.SHA256()))
        write(f"{directory}/{name}.pem", certificate.public_bytes(serialization.Encoding.PEM))
        save_key(directory, name, key)
        keys[name], certificates[name] = key, certificate

    secret = serialization.BestAvailableEncryption(password.encode())
    write(f"{directory}/client.p12", pkcs12.serialize_key_and_certificates(
        b"courier-client", keys["client"], certificates["client"], None, secret))
    write(f"{directory}/client-encrypted.key", keys["client"].private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, secret))

    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "stranger")])
    stranger = (x509.CertificateBuilder()
                .subject_name(stranger_name).issuer_name(stranger_name).public_key(stranger_key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                .add_extension(x509.ExtendedKeyUsage([client]), critical=False)
                .sign(stranger_key, hashes.SHA256()))
    write(f"{directory}/stranger.pem", stranger.public_bytes(serialization.Encoding.PEM))
    save_key(directory, "stranger", stranger_key)


def serve(port, certificate, key, ca):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.load_verify_locations(ca)
    context.verify_mode = ssl.CERT_REQUIRED
    listener = socket.create_server(("127.0.0.1", port))
    print(f"listening at 127.0.0.1:{listener.getsockname()[1]}", flush=True)

    def answer(connection):
        with connection:
            try:
                with context.wrap_socket(connection, server_side=True) as tls:
                    subject = tls.getpeercert().get("subject", ())
                    name = ",".join(f"{k}={v}" for part in subject for (k, v) in part)
                    request = b""
                    while b"\r\n\r\n" not in request:
                        chunk = tls.recv(4096)
                        if not chunk:
                            return
                        request += chunk
                    body = f"client: {name}\n".encode()
                    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                                + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    print(f"answered {name}", flush=True)
            except (ssl.SSLError, OSError) as error:
                print(f"handshake or connection failed: {error}", flush=True)

    while True:
        connection, _ = listener.accept()
        threading.Thread(target=answer, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "fixtures":
        fixtures(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
