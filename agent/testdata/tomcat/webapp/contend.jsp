<%--
  Every request holds the application object's monitor for ~2 ms of
  spinning: under concurrent load the other request threads are BLOCKED
  (on object monitor), waiting to lock an ApplicationContextFacade.
--%><%@ page contentType="text/plain" session="false" %><%
long spun = 0;
synchronized (application) {
    long end = System.nanoTime() + 2_000_000L;
    while (System.nanoTime() < end) {
        spun++;
    }
}
request.setAttribute("spun", spun);
%>contend
