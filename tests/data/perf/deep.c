/* deep.c: a recursion (300 frames) deeper than perf keeps (127 frames by
 * default): half the time in spin at its bottom, half in spin called from
 * shallow. Every sample is under main; perf report --children cannot say
 * so for the deep ones, which lost their outer frames. */
#include <stdio.h>
static volatile long sink;
__attribute__((noinline)) long spin(int n){ long s=0; for(int i=0;i<n;i++) s+=i*(long)i; sink+=s; return s;}
__attribute__((noinline)) long deep(int d){ if(d==0) return spin(200000); return deep(d-1)+1;}
__attribute__((noinline)) long shallow(void){ return spin(200000);}
int main(void){ long s=0; for(int i=0;i<3000;i++){ s+=deep(300); s+=shallow(); } printf("%ld\n",s); return 0;}
