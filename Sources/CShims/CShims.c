#include "CShims.h"

int cg_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

long cg_ssl_ctx_enable_partial_writes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

void cg_ssl_ctx_ignore_unexpected_eof(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

EVP_PKEY *cg_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}
