#include "DeviceAuthShims.h"
#include <openssl/objects.h>
#include <openssl/x509v3.h>

STACK_OF(X509) *cg_x509_stack_new(void) {
    return sk_X509_new_null();
}

int cg_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) {
    if (X509_up_ref(cert) != 1) return 0;
    if (sk_X509_push(stack, cert) <= 0) {
        X509_free(cert);
        return 0;
    }
    return 1;
}

int cg_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

X509 *cg_x509_stack_get(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

void cg_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

int cg_x509_has_policy(X509 *cert, const char *oid) {
    int critical = -1;
    CERTIFICATEPOLICIES *policies = X509_get_ext_d2i(cert, NID_certificate_policies, &critical, NULL);
    if (policies == NULL) return critical == -1 ? 0 : -1;
    ASN1_OBJECT *wanted = OBJ_txt2obj(oid, 1);
    int found = 0;
    if (wanted != NULL) {
        for (int i = 0; i < sk_POLICYINFO_num(policies); i++) {
            POLICYINFO *info = sk_POLICYINFO_value(policies, i);
            if (info != NULL && OBJ_cmp(info->policyid, wanted) == 0) {
                found = 1;
                break;
            }
        }
        ASN1_OBJECT_free(wanted);
    }
    CERTIFICATEPOLICIES_free(policies);
    return wanted == NULL ? -1 : found;
}
