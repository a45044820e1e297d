"""The learning management system (LMS): the course's LTI 1.3 tool registration, the platform's Assignment and Grade
Services and ``workbook lms push``."""
