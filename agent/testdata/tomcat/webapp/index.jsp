<%-- Answers at once: the helper polls it to know Tomcat is up. --%><%@ page contentType="text/plain" session="false" %>ok
