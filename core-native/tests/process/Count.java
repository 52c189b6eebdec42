/* Count.java - a Java program for the JVM checkpoint/restart test (cr_test.sh java): one line per 50 ms. */
public class Count {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]); long sum = 0;
        for (int i = 1; i <= n; i++) { sum += i; System.out.println("count " + i); Thread.sleep(50); }
        System.out.println("java done: last=" + n + " sum=" + sum);
    }
}
