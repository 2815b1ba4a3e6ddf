#include "system.h"
#include "pyscan.h"
#include "tap.h"
int main (void) { return done_testing (); }
