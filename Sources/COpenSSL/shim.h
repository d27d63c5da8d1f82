#ifndef CAST_GATEWAY_COPENSSL_H
#define CAST_GATEWAY_COPENSSL_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#endif
