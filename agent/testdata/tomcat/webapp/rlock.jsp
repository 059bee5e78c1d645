<%--
  Every request holds one ReentrantLock, kept in an application attribute,
  for ~2 ms of spinning: under concurrent load the other request threads
  are WAITING (parking) on a ReentrantLock$NonfairSync.
--%><%@ page contentType="text/plain" session="false" import="java.util.concurrent.locks.ReentrantLock" %><%!
    // Guards creating the lock only, so that taking it never contends on a monitor.
    private static final Object CREATE = new Object();
%><%
ReentrantLock lock = (ReentrantLock) application.getAttribute("proftop.rlock");
if (lock == null) {
    synchronized (CREATE) {
        lock = (ReentrantLock) application.getAttribute("proftop.rlock");
        if (lock == null) {
            lock = new ReentrantLock();
            application.setAttribute("proftop.rlock", lock);
        }
    }
}
long spun = 0;
lock.lock();
try {
    long end = System.nanoTime() + 2_000_000L;
    while (System.nanoTime() < end) {
        spun++;
    }
} finally {
    lock.unlock();
}
request.setAttribute("spun", spun);
%>rlock
