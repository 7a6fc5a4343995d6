// SPDX-License-Identifier: GPL-2.0-or-later
// libelfcxx.cc - a C++ test library: its symbols must show demangled.
namespace exm {
struct Widget {
	int grow(int x);
	static long shrink(long y, const char *why);
};
int Widget::grow(int x)
{
	return x * 3 + 1;
}
long Widget::shrink(long y, const char *why)
{
	return y / 2 + (why ? *why : 0);
}
} // namespace exm

extern "C" int elft_cxx(void)
{
	exm::Widget w;

	return w.grow(2) + (int)exm::Widget::shrink(8, "x");
}
