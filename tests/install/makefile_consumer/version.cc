// Prints the version the installed library reports, through the umbrella header a program includes.
#include <dybatch.h>

#include <iostream>

int main() { std::cout << dynet::dybatch_version() << "\n"; }
