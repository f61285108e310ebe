// nats.c (Debian libnats-dev 3.4.1, with JetStream) installs its headers under nats/.
#include <nats/nats.h>
