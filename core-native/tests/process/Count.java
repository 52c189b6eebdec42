/*
 * Count.java - a Java program for the JVM checkpoint/restart test (cr_test.sh java): one line per 50 ms.
 * With TEST_HOLD_FILE set it waits before its last count until that file exists (tests/programs/prog.h's
 * way), so the harness's checkpoint lands mid-run however slow the machine is.
 */
import java.nio.file.Files;
import java.nio.file.Path;

public class Count {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]); long sum = 0;
        String hold = System.getenv("TEST_HOLD_FILE");
        for (int i = 1; i <= n; i++) {
            while (i == n && hold != null && !hold.isEmpty() && !Files.exists(Path.of(hold))) Thread.sleep(10);
            sum += i; System.out.println("count " + i); Thread.sleep(50);
        }
        System.out.println("java done: last=" + n + " sum=" + sum);
    }
}
