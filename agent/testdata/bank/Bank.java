import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A small application with counters of its own, for the agent's telemetry
 * tests: accounts published as MBeans (bank:type=Account,name=...; a third
 * one appears after a few seconds), and two JFR events of its own: a
 * Deposit (an amount) committed at each deposit, and a Transfer, a
 * duration event whose state is RUNNING or WAITING, committed at two
 * places. It prints, once a second, what the JVM itself says of its threads
 * and classes: "jvm threads N daemon N classes N", and, after each second
 * with deposits, their summed amounts: "deposits SECOND SUM" (SECOND in
 * seconds since the epoch). It runs until its standard input closes or
 * SECONDS pass.
 *
 * java Bank SECONDS
 */
public class Bank {
    public interface AccountMXBean {
        long getBalance();

        double getRate();

        String getOwner();

        Totals getTotals();
    }

    /** A composite attribute: its keys are deposits and withdrawals. */
    public static final class Totals {
        private final long deposits, withdrawals;

        public Totals(long deposits, long withdrawals) {
            this.deposits = deposits;
            this.withdrawals = withdrawals;
        }

        public long getDeposits() {
            return deposits;
        }

        public long getWithdrawals() {
            return withdrawals;
        }
    }

    static final class Account implements AccountMXBean {
        final AtomicLong balance = new AtomicLong(), deposits = new AtomicLong(), withdrawals = new AtomicLong();
        final String owner;

        Account(String owner, long start) {
            this.owner = owner;
            balance.set(start);
        }

        public long getBalance() {
            return balance.get();
        }

        public double getRate() {
            return 0.25;
        }

        public String getOwner() {
            return owner;
        }

        public Totals getTotals() {
            return new Totals(deposits.get(), withdrawals.get());
        }
    }

    @Name("bank.Deposit")
    @Label("Deposit")
    @Category("Bank")
    static class Deposit extends Event {
        @Label("Amount")
        long amount;
    }

    @Name("bank.Transfer")
    @Label("Transfer")
    @Category("Bank")
    static class Transfer extends Event {
        @Label("State")
        String state;
    }

    static volatile boolean running = true;
    static final List<Object> garbage = new ArrayList<>();
    // The teller's second and what it deposited in it so far.
    static long depositSecond = -1, depositSum;

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        Account checking = new Account("ada", 1_000), savings = new Account("grace", 50_000);
        mbs.registerMBean(checking, new ObjectName("bank:type=Account,name=checking"));
        mbs.registerMBean(savings, new ObjectName("bank:type=Account,name=savings"));
        Thread teller = new Thread(() -> teller(checking, savings), "teller");
        teller.setDaemon(true);
        teller.start();
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // until closed
                }
            } catch (Exception e) {
                // closed
            }
            running = false;
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        System.out.println("bank started");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        boolean late = false;
        while (running && System.nanoTime() - start < seconds * 1_000_000_000L) {
            if (!late && System.nanoTime() - start > 4_000_000_000L) {
                mbs.registerMBean(new Account("late", 7), new ObjectName("bank:type=Account,name=late")); // MBeans come and go
                late = true;
            }
            System.out.println("jvm threads " + threads.getThreadCount() + " daemon " + threads.getDaemonThreadCount() + " classes "
                    + ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
            Thread.sleep(1000);
        }
    }

    static void teller(Account checking, Account savings) {
        while (running) {
            deposit(checking);
            transfer(checking, savings);
            synchronized (garbage) {
                garbage.add(new byte[64 << 10]);
                if (garbage.size() > 200) {
                    garbage.clear();
                }
            }
        }
    }

    static void deposit(Account a) {
        long amount = 1 + ThreadLocalRandom.current().nextInt(100);
        a.balance.addAndGet(amount);
        a.deposits.incrementAndGet();
        Deposit d = new Deposit();
        d.amount = amount;
        long second = System.currentTimeMillis() / 1000; // the event's end is the commit's time
        d.commit();
        if (second != depositSecond) {
            if (depositSecond >= 0) {
                System.out.println("deposits " + depositSecond + " " + depositSum);
            }
            depositSecond = second;
            depositSum = 0;
        }
        depositSum += amount;
    }

    static void transfer(Account from, Account to) {
        Transfer waiting = new Transfer();
        waiting.begin();
        pause(2);
        waiting.state = "WAITING";
        waiting.commit(); // WAITING COMMIT
        Transfer run = new Transfer();
        run.begin();
        pause(1);
        from.balance.addAndGet(-1);
        from.withdrawals.incrementAndGet();
        to.balance.addAndGet(1);
        run.state = "RUNNING";
        run.commit(); // RUNNING COMMIT
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
