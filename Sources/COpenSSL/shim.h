#ifndef INTENT_PIPELINE_COPENSSL_SHIM_H
#define INTENT_PIPELINE_COPENSSL_SHIM_H

/// SHA256_Init/Update/Final and SHA256 (HMACKey, Digest): deprecated in OpenSSL 3 in favour of
/// EVP, still part of its API, and free of EVP's per-call allocations.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/ec.h>

#endif
