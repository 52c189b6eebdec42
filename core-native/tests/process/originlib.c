/* originlib.c - a library the test program origin_app finds through RPATH $ORIGIN/lib. */
int origin_value(void) { return 42; }
