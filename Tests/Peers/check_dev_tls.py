#!/usr/bin/env python3
"""Independent TLS peer for Ringer's DevCertificates tests (Python ssl + cryptography).

Usage: check_dev_tls.py CA_PEM SERVER_PEM SERVER_KEY OTHER_CA_PEM HOST...

Checks the certificates' contents (CA:TRUE root, serverAuth leaf, P-256 keys, SHA-256 signatures,
SANs exactly HOST... with IP entries for numeric hosts), then serves TLS on 127.0.0.1 (ephemeral
port) and connects as a verifying client once per HOST (hostname/IP checked against the SANs).
It also requires that a client fails for a host not in the SANs and for a client trusting
OTHER_CA_PEM instead. Exit status 0 when all checks pass, 1 with a message on stderr otherwise.
"""
import ipaddress
import socket
import ssl
import sys
import threading

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


def load(path):
    with open(path, "rb") as handle:
        return x509.load_pem_x509_certificate(handle.read())


def check_contents(ca, leaf, hosts):
    ca_constraints = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    expect(ca_constraints.critical and ca_constraints.value.ca, "CA lacks critical basicConstraints CA:TRUE")
    expect(ca.subject == ca.issuer, "CA is not self-issued")
    leaf_constraints = leaf.extensions.get_extension_for_class(x509.BasicConstraints)
    expect(not leaf_constraints.value.ca, "leaf claims to be a CA")
    usages = leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    expect(ExtendedKeyUsageOID.SERVER_AUTH in usages, "leaf lacks the serverAuth extended key usage")
    expect(leaf.issuer == ca.subject, "leaf issuer is not the CA subject")
    for name, certificate in (("CA", ca), ("leaf", leaf)):
        key = certificate.public_key()
        expect(isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == "secp256r1", f"{name} key is not P-256")
        expect(isinstance(certificate.signature_hash_algorithm, hashes.SHA256), f"{name} is not signed with SHA-256")
        expect(certificate.serial_number > 0, f"{name} serial is not positive")
    try:
        ca.public_key().verify(leaf.signature, leaf.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Mismatch("leaf signature does not verify with the CA key")
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    dns_names = set(names.get_values_for_type(x509.DNSName))
    addresses = set(names.get_values_for_type(x509.IPAddress))
    expected_dns, expected_ips = set(), set()
    for host in hosts:
        try:
            expected_ips.add(ipaddress.ip_address(host))
        except ValueError:
            expected_dns.add(host)
    expect(dns_names == expected_dns, f"DNS SANs {sorted(dns_names)}, expected {sorted(expected_dns)}")
    expect(addresses == expected_ips, f"IP SANs {sorted(map(str, addresses))}, expected {sorted(map(str, expected_ips))}")


def serve(server_context, listener, stop):
    """Accepts connections until `stop` is set; completes each handshake and echoes one line."""
    listener.settimeout(0.2)
    while not stop.is_set():
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        try:
            with server_context.wrap_socket(connection, server_side=True) as tls:
                tls.sendall(b"hello\n")
        except (ssl.SSLError, OSError):
            pass  # a client that rejects the certificate aborts the handshake


def handshake(port, ca_path, host):
    """Connects to 127.0.0.1:port verifying the chain with ca_path and the name `host`."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca_path)
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            return tls.recv(16)


def main(argv):
    if len(argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    ca_path, server_path, key_path, other_ca_path, hosts = argv[1], argv[2], argv[3], argv[4], argv[5:]
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(server_path, key_path)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(server_context, listener, stop), daemon=True)
    thread.start()
    port = listener.getsockname()[1]
    try:
        check_contents(load(ca_path), load(server_path), hosts)
        for host in hosts:
            try:
                expect(handshake(port, ca_path, host) == b"hello\n", f"{host}: no greeting after the handshake")
            except ssl.SSLError as error:
                raise Mismatch(f"TLS client rejected the certificate for {host}: {error}")
        for host, ca in (("not-in-the-sans.example", ca_path), (hosts[0], other_ca_path)):
            try:
                handshake(port, ca, host)
            except ssl.SSLCertVerificationError:
                continue
            raise Mismatch(f"TLS client accepted {host} with CA {ca}, which must fail")
    except Mismatch as mismatch:
        print(f"check_dev_tls.py: MISMATCH: {mismatch}", file=sys.stderr)
        return 1
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
